FROM scratch
COPY hello /
CMD ["/hello"]